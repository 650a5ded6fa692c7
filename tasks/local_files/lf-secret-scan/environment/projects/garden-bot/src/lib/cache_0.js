index cache index test build beta
alpha build config beta data beta model index index
render token test index data alpha
data test render build view view view
build build config cache model
value model config value view alpha alpha build
config model alpha alpha index value value
DATABASE_URL=postgres://lena:Pgpass!Wintergarten-2291@db.local:5432/budget
token render value beta data data user parse token
value data config
token cache alpha beta value token
user index build build cache token
cache config test data render cache value
data model build token test render
beta token index alpha parse test test
data build render token
token config view model model render cache test parse
render user render
beta index view test parse cache data user
view data index
test test test beta alpha cache
user alpha user cache data
data value cache test view token value alpha user
render parse parse
cache render parse test config cache parse user render
config token view data model parse build build user
index render data value render build
render token model token
view beta render alpha alpha
render token test view alpha test
model render token view token render value test
value view view data
config data index render parse alpha
cache index index render config parse
build test model index alpha user
test build token model
beta model token data beta
token test test test config parse beta
alpha alpha model value
value test beta render index view

user cache cache test model view data cache value
cache value render
render cache data render view user
view config alpha test view view
view value test data user build build model index
test parse config user build model view beta beta
cache build build alpha view value
user model index
cache alpha config test value beta value config alpha
render user token test model beta token
user view build
token view alpha model alpha beta cache model cache
test config parse index
view value test token config build build config
data cache build render view beta build value parse
beta config config beta data beta model
model user index config token
config parse token cache alpha value
user index user beta model build
value config data parse user index beta value
build beta build data cache view data test
alpha beta user model cache config model
alpha build render parse render model token model
config render model model model
alpha config token beta
config data test cache data
view test data config alpha
user data beta beta view
value index beta token
beta model user
render view model parse
token value token cache alpha alpha user user
value alpha cache token build value cache
alpha test data
test token token
token alpha beta token view alpha cache
beta render value index
alpha config cache token beta beta data build
build user model
token index build render value config build user model

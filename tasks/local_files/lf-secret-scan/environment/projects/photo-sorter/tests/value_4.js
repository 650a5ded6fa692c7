render render config
cache parse index data
build model token value
user cache token data model view parse parse
render model view beta value parse value user
value cache index
value index alpha model beta alpha
beta config test value
render index beta test parse model index render token
model parse token token test
render index data alpha test alpha model beta index
test view token token index data data index
view test index test build data config view
data beta alpha test index
token beta render build data cache index beta
user parse test cache beta beta cache alpha token
test view beta view
parse token view cache parse
model value test view data parse view
user beta model alpha alpha
model config token model
test user cache
model user test cache
model build user parse
build cache value render data
token token cache build cache data model data
data data build test index

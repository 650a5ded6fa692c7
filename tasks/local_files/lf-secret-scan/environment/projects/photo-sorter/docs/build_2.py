view view cache view alpha model value
render data parse index cache cache test token build
build index view config value
alpha data value beta token
token cache data
render test data token parse beta
beta test value model config build data config
model build build build render cache cache view config
test index user model model user value alpha parse
model view config beta
cache test value alpha config
build user token
cache alpha index test user user
data beta value config parse token
build view cache user build data
alpha test build token build model
index data alpha beta data index
token alpha view build render
render value view config value cache model
value test view view data build model beta parse
data config config test beta value test
alpha test alpha parse test parse value model
config user index
test token alpha model data model
build render value view test
render index view value user model model
index beta alpha value data cache config beta
parse token user user view test alpha config
token value alpha view
token beta build
model alpha data parse token token value parse
cache beta test test index render alpha parse cache
parse render cache index token data test token
parse view beta token parse config
cache model cache index
token index render user render test token view
alpha data model alpha
test alpha model build token config value user
parse beta user

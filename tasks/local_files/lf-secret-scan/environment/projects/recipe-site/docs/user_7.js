parse cache data alpha
build beta build render config alpha parse
index alpha user
alpha config parse render token
test index parse build test render user config
model alpha view token build
data config test index test view beta
user build view data render alpha view alpha value
parse view index alpha build value
data index token cache token model data
value model token
render model parse
alpha test token view config alpha
model parse view value beta view data
config token cache model
config view test value test index
user index view test user build
view beta alpha model view test
index render view view build user
index config build
render cache value view
cache token model model build parse index test test
value build render config user build index render
config beta alpha value value
token build token cache
alpha build token config value
index value model config beta parse
user beta alpha parse data index render index parse
build user view index view config token
build view value beta parse value build alpha parse
view parse render
value parse index token data value build
render data data
alpha view render value
data view user cache

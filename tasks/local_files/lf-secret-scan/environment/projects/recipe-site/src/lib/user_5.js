index view view data view value value alpha
model config token token model model cache test config
config view token build alpha index cache config
data cache config data user index
render value value cache user config beta value
test user alpha parse
token model render index
render test build token
index parse parse parse test data
alpha build cache parse
model render model build build token
cache data config
index model model data token parse build data parse
parse cache parse alpha config config
view index token data render render
cache user alpha token cache render config
view user config beta alpha cache value
test data token token value view parse
token data user
render config render build beta token build
data parse model build build user value index build
data parse build user
build index build build data parse test user
value render parse beta
index render test
cache value beta config test value render data value
test test test test config
value parse alpha data cache
render view model
index value model token alpha cache model
alpha render user cache index beta render parse render
index alpha view test data value value build
config build token view data data data
alpha build value build token

test view view model view
render parse data parse parse
beta config index token parse cache parse user token
cache config index
cache index alpha cache value build alpha alpha
index token data
build model render test value cache render parse
test cache build
index token view index build config parse
alpha beta build view view
config value user model token config token
token alpha index user render token cache value
parse value build test view
parse alpha test parse build config view parse
value token data model token test render
token build model model value view test beta
test value test model token config
data render model test user
beta beta render value alpha cache token alpha
parse model config alpha config user token data data
value token alpha config parse test test
alpha parse token beta data render model
value render model
cache parse beta parse cache parse data
index parse model index parse index parse index
parse token cache alpha parse value value view
parse test token token token value render
index alpha user token
value render token
user render cache render data alpha config
render user value test test render index config

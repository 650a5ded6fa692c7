test view value data token config view index
value build test
token value token test data
value beta beta token cache data data config
model user config parse render data
cache index token parse view alpha index parse
render beta view value value alpha index render
token token cache token index alpha user
render parse user alpha index test render config render
render data data cache
value value config value beta parse beta
test parse value config alpha view parse test test
token data beta user build value cache build alpha
render value data
build model view parse index cache test model
beta cache parse value
data test cache beta config parse model beta
alpha view token user cache alpha test config render
beta test alpha build data beta index render
test render beta
cache render index
cache data token
model cache cache model render config build user beta
token test test test alpha parse view
token build alpha token build cache token token
beta beta cache build build model beta
model value data model
view user data render view index user
user model value
parse token alpha build value index user cache parse
view model value index config value token
model view test data build
token test alpha test data
parse model beta parse value config index test user
cache render value config data
cache data cache beta beta render
config beta alpha token cache render value user
data parse test token test beta cache index
beta data view

user alpha parse token data index beta
render alpha beta model
parse beta user data
model alpha cache user view test render
build user render
beta token token cache parse build test index view
model data index alpha alpha index
cache cache model config value
beta config view value user model render test
user view index
build data model test
model cache alpha parse token model cache
render cache config
value alpha value alpha view build config render alpha
view cache alpha beta config index
token index beta config
render model index beta data data token index config
index render render user
beta parse view test user
render user token render
alpha view test view parse index data
view data index cache
index user data data value cache render model
value token index
view value config index user config user
view user beta user user user
token config data test beta index value user index
test data view token test index
model beta token alpha index test
render user cache model index
render value cache index view data parse index value
index build cache value user parse token token model
token cache user cache view parse parse render test
index parse index
config config render index view

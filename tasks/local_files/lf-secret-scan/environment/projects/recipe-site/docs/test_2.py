index cache token render data index alpha value
view cache config cache beta
beta config build view beta
token user view config alpha beta model
build parse parse alpha
render data cache beta value index model
beta view config test build user model
model test index user user model
token beta alpha
parse parse cache cache view build test index
data cache model index model
build data beta config model config value cache model
beta user render cache build test token test beta
build parse index test token cache cache
index render test data index config parse data build
index value test
data token alpha token config model
token model user value build alpha render data view
data view cache
token model beta test user test index test
alpha cache parse parse model data model
beta config view cache value model
build data index data alpha model parse value model
parse data view build user
beta user user view render view user parse
view beta index alpha alpha
data render cache config alpha
view test index config cache
user model cache value model model
view build index beta index token parse
parse token token
build data test data user cache value cache
cache alpha view test test
render render config
cache index config parse
test view build beta model

data parse beta token test beta
view render model
user beta user index data
cache index render
alpha data value test
view parse parse parse model user beta
index parse build user data view
cache index cache user token token
index data data config render index cache model
index index test model build parse user
test token data parse view user alpha
test token cache view
model render user alpha build index parse render value
build build config view token cache view
index token model token index user config
parse render test
cache model build test test cache alpha config config
build alpha config token value render data model token
model test value cache test index
parse test value alpha index value parse build
config model beta
data token parse data config
build build view
parse build data
index user model parse user
alpha model user parse test config token view build
alpha cache view test
build cache build render test value
model data view index
beta user index test user
data user value index token alpha beta render
test token index token render value model config
token user test config cache data build value build

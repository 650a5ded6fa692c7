value config model model config token
build view user model cache
index build alpha beta user token value cache render
beta beta alpha token build token
test beta alpha beta alpha
config config view config parse index token data config
test data render user model cache view parse render
cache beta data token token
build test beta parse user value
index view alpha index beta model beta render render
token view model render build beta
render value view cache config data render token view
cache build config
beta model beta model beta token build
alpha user render build render
data user user
data config cache model parse parse build
beta view view
user build beta data index user beta config
value data view user token
alpha data beta cache
cache view token test config alpha
user beta data config view
parse cache render model
token render index parse model view user index render
build user build alpha
build beta cache
view index beta render token test user model config
user build beta user alpha parse value
value token data user index data parse value index
token render data index
parse render user value build
cache beta value model
alpha test beta alpha
cache parse user cache view
cache render render parse
config alpha cache model beta data model
data view value render user

view value beta data
model alpha user render parse data index
user model build test test render render view index
view data alpha token view view build
view build value data index beta user
alpha value render value value cache value test index
test cache config beta cache
user parse data value cache
user data token index test
alpha alpha test
value parse model index user
parse cache build
view build beta cache view test alpha beta value
data model render
test config parse test value view config render index
data value view parse value beta
config model beta token config value config user
cache test render render alpha parse render render
parse user user view render model data
cache test model token
view render user view value view value build alpha
index parse build build parse data beta build
cache parse render beta beta user value
parse index data parse parse value data value index
cache test model
token index beta token data user data view
beta token index beta build
AWS_ACCESS_KEY_ID = "AKIAQ7ZK3M2WXR5TLB6N"
parse test cache user alpha parse alpha parse index
data data model alpha cache value render build
cache view parse user model test index index cache
data config model cache beta alpha token
token data value cache token view beta data
parse index alpha beta
value data build token index value test

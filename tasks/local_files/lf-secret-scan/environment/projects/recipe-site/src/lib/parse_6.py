token data view render alpha config
data config alpha view token alpha model build
alpha data view build
token cache value index index cache parse index
index cache cache value index render cache beta cache
build beta config index token data config user build
index index parse value config parse
cache config test render config index beta parse
model user beta test cache index data data token
index cache parse
user build value parse render index render view cache
alpha test beta value user
model model config beta render render view build
value data data token
cache value token data render parse test index
render value data cache index model
user parse alpha data data data value parse config
build beta model cache value build
value parse user config beta render test index value
token test data alpha data model index
config model cache build model token test config alpha
user build value data
config index render test model test
test test data index index parse
test config token index
build beta model
parse token alpha cache beta token config index render
parse render index data config beta cache render
model build build
user alpha user user test
data view data data
model alpha config
build parse render config data cache alpha

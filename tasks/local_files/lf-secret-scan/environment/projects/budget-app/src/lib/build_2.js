render parse config value view token
data parse value value view token model value config
beta config beta view
config test user value cache
user beta data cache render beta config cache
config model parse
data parse index model value render
build model user test
data view beta data value value
beta test alpha alpha
parse index parse alpha user
token view user beta model data
test index user user token parse beta config
beta view alpha parse build render
build data parse user parse user view
cache alpha model index parse token cache render index
user index config index
test test build beta config parse
cache beta test value test beta data
data user beta
data data token config render index render
config config parse
view data token cache test model build beta render
data parse cache token parse cache value
value token alpha index index data model alpha data
alpha beta parse build
beta value data token view
view parse beta test parse user view view token
value cache beta render test
alpha config parse cache
config parse render
cache view value value render index
view cache token
user parse alpha user user test
index value cache parse index
model value alpha view value parse

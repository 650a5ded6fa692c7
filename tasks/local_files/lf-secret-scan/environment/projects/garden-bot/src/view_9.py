build model beta test test value test config index
user test render alpha test parse parse parse
alpha parse config config model token cache data
alpha data token
value token index
view build value
beta cache render value
data alpha index data build config parse alpha test
test test index test alpha
alpha parse value beta
parse cache view model index data index parse view
config data user parse user token value model
model parse user alpha cache render beta parse
config alpha index model alpha
cache cache index token token token config token
view user parse test
index config render cache model data model alpha
value beta beta test cache alpha cache index beta
alpha render view beta alpha alpha value model
config user user test beta index
cache test alpha build
beta value view
build config parse render beta token value alpha
user index cache token token index token parse
beta view data view user token user alpha
beta build alpha build index index
view view value
view alpha beta
model alpha model render value view alpha
test beta data cache test model value
user alpha user index render index parse view config
parse view data value alpha cache
index value build build
beta cache test
beta index render model value data config
test build parse cache index
view model parse
test value value beta data user data model build
cache test value

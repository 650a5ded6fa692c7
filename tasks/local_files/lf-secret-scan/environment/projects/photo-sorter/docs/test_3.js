config index render index
build alpha beta index test beta alpha view
config data value cache view test
token beta alpha build view value beta
model alpha value test data cache parse
config value render beta
test index model render build parse model beta
build data alpha value alpha cache
cache alpha test
user value token alpha token build data
build alpha user parse beta
cache render build value
view parse alpha token model model
token model index parse cache view render user
token token user index render view
user index model build
cache view view parse user model cache
build value data
beta data render render token data
index index view data index config index parse value
data view view beta token model token model test
cache value model index beta user
cache data render
user value user build
build parse cache data token data token test
parse user token
parse beta user index
build test beta parse build
user test cache model index
model render cache data data build test test beta
render value model
user index model user
value alpha build
parse beta token token test build

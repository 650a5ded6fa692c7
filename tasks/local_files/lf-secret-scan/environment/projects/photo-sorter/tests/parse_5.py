build test data beta model user data
index build value index data render config cache user
parse index parse view
test value test config value build parse
user config beta parse
parse value alpha index beta render user
token beta beta config index beta render parse
cache model index view parse
parse user cache index
cache user parse
model token value test
config value cache build build beta parse data
model cache build alpha user index
test build render user beta index value model beta
model alpha value token beta
view data beta
value index view index value data token
value token view
token user value model
view data test token cache test test
test build value render view
test view view render token
model parse user beta alpha parse config build alpha
parse value index beta model user

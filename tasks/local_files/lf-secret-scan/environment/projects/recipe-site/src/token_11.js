user config view data user user token token data
token alpha config
config test cache index token index view build view
beta test parse index token data model beta parse
data beta build render config
build render build beta
parse alpha view config
build view data view model token value
token config render
cache cache build user index render alpha parse cache
view render value parse render
build beta index data view view model
test token view index
index build model render render index user
parse token token index view user model user
value view build value
beta beta user cache token test model beta
token build value
beta view config
config cache test index value
user user config config token view test user
alpha index view parse value render
render index parse render
config alpha parse render build token view value
cache token parse
index render test value beta model test test
build value render user test token test model value

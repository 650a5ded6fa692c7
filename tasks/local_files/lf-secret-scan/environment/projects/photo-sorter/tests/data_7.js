build test build
data value view render value
user token user view
beta parse beta user
view render user token config test
model index beta
model render cache data config alpha beta view
value build build data token user config
alpha value test token beta build
parse token config token index data build data data
test cache data test token model render index
test config beta cache build user user
build render cache data data
data config index index data model cache
test config view test cache token beta view
index view beta
data view user parse index render parse beta data
render data value build config test
token token render
value build data view build parse token token build
cache config cache model model parse user test
view model cache
render model model data view beta build
test index beta index alpha data view alpha token
user value test config render index parse
model value cache beta value beta beta model
render model render cache build
parse config value user parse alpha
test parse config
view user view data
value data user render data model data
model value value value index render user model
view model index
build value value data beta value view
user parse render index beta cache index user view
alpha view user beta
model token cache test
view model beta index user parse config data view

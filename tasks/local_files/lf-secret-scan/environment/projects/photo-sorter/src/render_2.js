data config index
test alpha render test user parse config test config
view build view model
index user data alpha beta alpha cache test config
cache build value
render test view render cache data value
user data render parse
test token user model view index user build token
cache index cache beta index data test
cache value parse user model parse build
cache beta cache token beta config user token
build token parse render config user model model value
value model token build user test test config
beta token cache test alpha
model beta beta model

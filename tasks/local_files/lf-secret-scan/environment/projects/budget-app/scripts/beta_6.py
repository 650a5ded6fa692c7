render value cache config token
index user alpha token
user test index cache token
index test render data config
config view model view
view model data
beta index cache data model value render alpha value
build cache test test index view user
token cache render token beta view
test alpha config test alpha config
render index token
view user test value value build alpha build model
model parse cache build build cache index
index token cache beta
user token parse parse view alpha
user config model alpha data data token
value parse build
render model cache model view test index value value
value build index config alpha cache
config config beta test beta value parse
data beta data view model render
index build test build alpha view token

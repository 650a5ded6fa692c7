beta view render test model parse view
user alpha data data config
user index cache build user beta value beta value
build model index build
parse test data build view value build
alpha data value view alpha cache data
cache parse user token render
test config data value parse user index
beta user value beta user index config view
beta cache model test
beta cache view
token token alpha build model alpha config parse
user config alpha data
alpha beta view value alpha user test parse
view cache test test
build user config value cache cache value
token value render cache data cache
alpha render view view render alpha view token
test build alpha index index config cache
index parse index value test config config parse
index build model user
data cache index data beta index
value cache parse token
beta cache beta beta config
token token beta index config build index
build user value
user view view
model data token config
view render beta render render render test
render build user test beta
test model model beta build model

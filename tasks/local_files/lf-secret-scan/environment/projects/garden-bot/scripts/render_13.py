config cache beta index test
user index build build model model parse build data
data build config
token index token beta cache cache config model build
config alpha build data user token view
token beta alpha index index config
test index beta parse cache test render parse
value index index render
data cache beta alpha value value model config
model view parse
value config beta
config value beta token beta user
value cache parse model model
index build alpha data config config token index beta
value test index token render
cache user config data test test cache value
user index alpha user cache beta build test
render token test parse model data
test cache beta beta
value beta user
beta view config render
build token index
user alpha view view render
index token test render alpha render
render beta value beta
build user user index user data alpha index
build user index
config token index
index cache beta beta config build render

view parse test test view parse token model
test token data
model value test token
cache alpha data
alpha build build model view token view build beta
render config user index alpha render view model
alpha config cache render value
test render alpha data user beta alpha
test build build token build build
config config cache model token index value value
data index view data
beta view render
build render config cache config model cache
index alpha index model render build config
value beta model
render beta render beta config data
value token parse model render model alpha
view token render config beta parse alpha index user
parse alpha beta cache test config cache value cache
alpha parse data model
render alpha view cache data alpha parse
build render config build data value beta beta
alpha model test token view index build model
user token user cache
config value beta
user config token beta data build alpha model
user model index data alpha
view view render beta token token view build model
user view model index
render test value data build view user
model model view
test data index data beta
model config build beta test
render config token token render user view view token
token index beta view cache

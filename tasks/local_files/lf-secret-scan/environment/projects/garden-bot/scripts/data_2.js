token index render token value cache alpha test config
index alpha value
model test alpha user cache test
cache value parse parse token alpha test render
view beta model
index render build config config index alpha
render config build view
alpha parse value test beta build test
test test user
value beta model
model view test
index config cache alpha data render
build user index
index value alpha render
config index model cache cache cache data test
data cache config index index view beta parse
data index test
test build build value
config model alpha index view index user
user data user token parse alpha test index
token cache beta index build render config
alpha index value value
render parse data data
beta alpha test config view build model
user user token
value value render config model parse build index alpha

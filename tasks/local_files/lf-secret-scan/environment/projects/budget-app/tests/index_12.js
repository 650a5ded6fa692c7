parse render beta view beta
cache token config config data
model test index
config beta index parse cache model
data cache alpha beta parse test
alpha config config user token index
value test test
parse alpha index index user
test model index
model data beta data parse
cache config build alpha
test model test value value beta view test
build model view index value parse cache data beta
token render beta build config

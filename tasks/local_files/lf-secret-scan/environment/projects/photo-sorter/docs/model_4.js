render test user render user build alpha cache test
index test view index test render
render build beta alpha token test user beta config
build value build index user cache model index parse
model parse user beta
data render token
value test parse value
parse value data config alpha index value render
token parse test test view test data
view alpha data build test cache config value
user test build index
user render data build config user cache build cache
user data beta test
build test view index index user index test cache
config value build config value data
render build value
view test cache beta config
cache render index data beta beta user user
alpha cache index model cache
alpha render build test beta model token
cache alpha alpha user build
view value render

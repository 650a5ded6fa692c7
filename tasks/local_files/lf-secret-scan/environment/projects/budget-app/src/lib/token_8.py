model user token cache
parse parse data user alpha parse
config config build data view token
config data render token cache view token
build value index beta alpha index
model build test user data data render cache
cache render config config
test alpha value test parse test
beta test data
cache data test
beta build config config model
view model build view model view
render token config view build model
beta data view alpha
render render value data beta view build
render user test index cache index token user
config build alpha value
test token test parse index value cache
test beta test
build view beta data build beta
index parse model user test model
user user test build view token
render value user value render render

render model cache build
token token test cache
index model config user
config token token config
model index view render index model beta value
build beta test view token parse
index alpha test token value build test alpha
beta parse index data view
model model test beta data data index
view data render
alpha cache index alpha view user token index
index token user config render value value
cache render user model view value
build data build build data
test data user parse config parse view value
beta value beta parse config
config view token test token render
user render test beta parse value build beta

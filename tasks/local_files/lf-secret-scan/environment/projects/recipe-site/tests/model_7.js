model build render alpha render cache alpha
value build build beta render test build view view
user view alpha index alpha render alpha
model index value
data render value view
user alpha value alpha index model build index build
beta index beta model index alpha
view value parse token
view model parse render user view token
data token test cache render build
token index index model render parse
token test beta index alpha
data user user value cache render view
index token index config view alpha alpha
view token render value parse token
value cache data value value model render config
model config test beta config parse user test parse
parse parse parse index data alpha model
cache token value index render value cache model view
beta index config user user build token cache
cache config test view build model
beta beta build beta config parse model
token token data index user model model
parse alpha alpha build
build build parse render cache value token build
alpha render cache user

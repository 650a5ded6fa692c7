cache token view token
index render alpha
value render build
value beta beta user value build config
model parse token view token view cache view parse
test parse render model user beta config cache
alpha config model index user alpha
model cache alpha view token build config data alpha
model user view data
index parse view data
parse view config value config data alpha render model
value alpha user parse beta parse token
data alpha token
cache beta data build index alpha
user render alpha user user view parse view
build model beta
config cache beta beta alpha model user value
beta index model
alpha index render
view token alpha alpha user cache view
test cache render
render test index value view view render beta
model data view user token test index view view
parse view build value render
user cache view config view build beta value
render test alpha test parse build
index render config data build
build alpha build token parse beta beta build cache
user cache token parse
user index data index

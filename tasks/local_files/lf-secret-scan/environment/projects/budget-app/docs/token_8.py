config beta value render
test config test
test render beta parse user alpha index
beta alpha value build model data user test config
data parse parse parse
user token user cache index
index value alpha token model
render view data
test render build
config model index token index view value model token
parse alpha index config user user alpha render render
test model value index model data config
index render build
data index build index
model view build
token view view view beta data user token model
user user user beta
index alpha build
user config alpha beta
cache parse view build render build user
model index view build
cache model value
render config view value view render value parse beta
token parse model parse beta parse user

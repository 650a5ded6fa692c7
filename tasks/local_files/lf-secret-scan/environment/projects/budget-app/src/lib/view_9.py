model model user parse beta render user
index value config user index alpha token model
config token user render
test alpha render view build
test config build index
model data view
index view value test view alpha cache token
build index test parse cache beta data
user config view data test cache model
beta model config beta parse parse
token config value

data token user data parse
index view alpha data config parse alpha model
parse model index test value build model parse
model parse data test alpha user alpha token alpha
token model model token model index model test view
model test user test beta config token token
value alpha render cache parse beta
token test model alpha user data token model
model index model test beta render
config beta data
user config token token index index
beta value data parse config test index
config build user build build config render test
build build model alpha
view model parse view value model model model
view build parse render
build model value index cache alpha beta
cache test index parse beta index

parse alpha render value alpha user index cache parse
config build index token value test view
view cache cache model
beta build model cache build config value parse
parse cache token beta test
index index config beta
parse config config user data user index view
value data alpha user test build alpha alpha
model parse config test
model token test beta index model parse parse
data build alpha cache render
view token parse data token view
cache parse beta token test
alpha token test
test data token alpha parse value
user user view parse
user render index view cache test view
beta value user cache alpha render index render index
view parse model cache test
cache value data view data
parse test test value model build token token data
data beta build parse view data
token parse model index beta render
data alpha token beta
alpha token beta data value user index
render render user token beta test
test model cache
index index model build render beta

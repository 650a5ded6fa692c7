index data user token value user value
parse token config test build
test user alpha build config test cache
value user alpha parse
token user beta build cache index build
beta config model build data render beta build
token index test render config alpha config build
index test value alpha model
index data cache build beta view
model value test value alpha cache view model data
config render build render token data user view
alpha beta render cache
render view data beta index view model beta test
beta value beta alpha render test

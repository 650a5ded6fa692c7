render beta model index token config
cache view value config
user beta render
cache user test
beta value render
view config config alpha
value config data
build model alpha config
cache config model
render test value user
test parse model
data cache data
token index config parse build
config token alpha beta
data test render
config render config alpha value alpha alpha
beta build beta parse beta model data
alpha model user config view model
config config config alpha test cache parse
view value config view
beta alpha index index
user token build
build cache parse test user value render
user view token data user view
test user test index render
build data config beta
parse user token data test test view model
config alpha user token alpha model alpha user
user render test value config build cache parse model
beta config user test
user beta token model data user view alpha
render beta config test alpha render index alpha
config user value parse cache config test parse
view value cache view render
token value cache
test build index model render

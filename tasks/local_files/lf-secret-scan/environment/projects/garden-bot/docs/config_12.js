beta data index beta beta
value value beta
cache view alpha model
model test token model alpha beta cache
view model render view model data
beta cache model view beta alpha
alpha alpha parse
view user config test model parse model config
user index beta
index cache value render config build cache model
cache parse build user render data config
test cache data index
cache beta parse view build cache render test config
user data data
user data test
view config render user view parse index alpha cache
user parse model user render index alpha test build
config cache test alpha
build test user data test
build render model alpha token
parse token render
build view token view alpha alpha test model render
token cache token parse model view
model model index
user value test view
index index user parse parse parse
token config alpha beta model alpha test cache
alpha parse view parse
view user cache value user build render build
index index beta index
cache build alpha test cache token test value
render index view config config beta alpha parse view
parse alpha build config view build
render value config data build
model data user
beta view token
test alpha parse token
cache token value test parse test
build beta test data

data alpha beta cache view value cache
user build build render view model build parse render
view parse value test
model config view token config view user
value model beta index
value config index model value model
test value cache user beta alpha render
render test token user test test
test build build
view cache token
user data data index model config config index parse
build alpha cache render model test build cache view
test parse config config
model user model token value build parse beta
data beta parse model data data view test data
index model test index data test
test beta value token config build
model test build
parse test view value config render build
token view token config alpha
config data beta view beta alpha beta view test
index cache alpha
beta index token user view config
parse parse cache value config data view data
view model data
token token build beta value token
alpha config data model config parse view data token
user render build build
beta value parse build user parse token
parse config user cache parse index config
parse index model config cache token config config token
token render data data value test view value build
parse alpha build user test
view parse user test user
model data build alpha
parse build index beta config
render value view

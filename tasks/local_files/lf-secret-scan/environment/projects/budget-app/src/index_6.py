value cache model value test value index
user render beta
cache alpha index config token beta
render cache token user beta data test
beta test token data token test model user beta
parse alpha data render render parse test value
beta beta token parse data index
test parse render parse beta
test value data view view render test config view
render token render
config cache config user cache model beta model
token parse value test user data
config config index model user index model render data
beta beta test
parse value test config config test test test data
index model alpha beta token view
model user parse token render alpha
value config cache render parse
alpha config build
build index model
alpha build beta
config parse render build model parse beta alpha
data view test model data parse model
model config alpha token cache render
model data config token user user alpha render render
token test view parse model view data token data
view cache build value beta
model index config beta model
token build data render
build config config data build build index render
render beta view beta render token config beta
build build index build user build
user data beta parse index parse view

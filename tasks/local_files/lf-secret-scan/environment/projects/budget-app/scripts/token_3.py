data beta config render render config
test parse parse model
alpha cache data data alpha build test
data render index build model index cache parse user
beta model index view value user
view cache cache cache model token alpha
beta data test test
beta value cache alpha
value test token parse value value
test beta data test view data parse
test model value cache index view render beta data
user parse token
render user user build model token test beta
view config test parse
index build render view build data view token
config test beta value token render beta parse parse
config parse value view value test alpha model
user view token data
index user parse build model data test
view beta value data view config cache cache build
config data test view render model build build
user render view view config user
beta user value user render model
parse render test alpha model
view parse config value index beta
index render config alpha parse parse test data
view model token user render
model render parse user render config
value user render user alpha test parse build data
user data index value alpha beta view beta parse
token model view
config parse view test

value value model test user
token view token beta value
build value index parse value
view beta render view cache token render
alpha index cache beta value data model
alpha cache value alpha data test test beta token
test view model test build
test cache cache model parse beta user value build
token config token index view render build
view cache parse cache data cache index beta view
alpha test view test
value beta cache index model
config cache user build index test
alpha view render view token
beta parse user token
view test parse beta user value build cache beta
user view parse token view
config index test config
config user beta model value index view
parse model beta alpha model index
model render build
view build index
build test test
render user index view render config render beta
value model model data user render token view test
index render model index config value user
test model test build index index parse build data
value build token
cache token parse view

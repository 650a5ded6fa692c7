config cache beta index test parse model config
index token alpha
cache beta build alpha beta data index
beta config token view data build render token
cache build cache parse test view token test value
data token model beta view render model value beta
parse test view
user render value alpha user build
user user data render model token
index data value
token parse beta alpha build cache beta config user
build model beta config alpha render user model data
view test user value test
beta value alpha test
data alpha render build parse alpha config view token
build user value parse index alpha token alpha
index index index cache model
alpha test index alpha cache beta
model value beta beta value render cache
alpha model view model build token beta
value beta config model value value
cache token build alpha
alpha render model view beta cache data test config
view index alpha alpha
test config value test cache alpha render
token test beta

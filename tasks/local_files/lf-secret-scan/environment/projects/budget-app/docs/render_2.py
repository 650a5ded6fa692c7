test user user
value cache token
token user model data user build cache
beta build data model data alpha build index token
value token user value view config
test alpha view config test alpha cache view
user index build alpha test
alpha index index cache beta user parse index
alpha model render beta cache
value view value parse data data index index alpha
parse alpha index
view render value
user data build
beta test data
model user render model model alpha test token
beta test config
render beta value cache render value alpha
config data render view test value alpha
cache config config beta alpha
beta render beta
view token value
config data view
config config parse
build value test alpha config model token
token alpha token alpha token alpha build
view index model token
config user index data value

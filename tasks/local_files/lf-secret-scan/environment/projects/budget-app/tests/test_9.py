parse build config cache token build
data model view test test
build data view model data cache token cache
user beta value cache view
build view cache
alpha index user render render
cache beta config test
cache token config model index
beta parse user build model beta
index parse parse value model beta token
cache test model model user user alpha alpha build
parse cache render beta cache data build
token render index view
index alpha model beta index index
data data alpha index alpha user user
data view alpha user alpha
config token view value render value build value token
build view beta model
view model token value config config user config
model user build cache cache value
model parse data user
alpha view model token index
index data value parse view view cache model alpha
value view user data

cache alpha config data parse build user value
beta render model alpha build
data view parse parse view data
beta data parse data render data data
user alpha beta alpha alpha user
value build view cache user
model alpha render model user data render build test
config view beta token beta alpha render data
token alpha alpha
token model view index token build
index view view config value alpha parse
alpha build beta model
value value data value data beta build view
value user user build model
token model test cache value view render alpha
index index alpha cache test index
beta data model value model alpha alpha
config user model user render
value index user data model view beta
render view model beta config build render
data value parse user user alpha alpha cache
beta token index build beta beta cache
cache alpha token cache config token beta data
user index test config
model test value token data cache
beta token render
test cache parse view beta
data build index model value value model value
value cache model build model value user
build data config config test value
model test model data
beta config config cache test index
beta value config model token test beta beta
beta build build model model value test cache
build render alpha token build
data index user token render config user config
render model data parse
cache beta data beta data index model
alpha token value beta index render
build parse value

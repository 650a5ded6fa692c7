alpha cache test user token
cache render render user cache beta
user beta cache
build index render
render test index build build config
value model alpha
config value render beta value value config
render config test parse value
config test model user value build
model test render parse render config value alpha token
user parse value token user model test test
config cache token value value
parse data user value config view model
user model config build value cache test token
build config parse config model
data model alpha build data value parse data view
data user model build alpha view test build parse
render model token render
build model model view build user config cache parse
render view parse build token config
index test data alpha
token beta index test data user model view
config render parse model config
view value render token value test config build model
user test config token value value beta test index

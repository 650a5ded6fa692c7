test token value alpha render value value
beta user token user token
index cache parse token
render index alpha render beta
value view view
config beta value build
token cache beta view parse user user
view beta value token value value beta test
index render data token model index user index render
model model value token build beta token render
render config data model config user alpha beta
view data token user token view parse value view
beta cache render parse index
user cache view test index beta index cache
test value token
model index model config render view cache build
config beta view
test alpha view
test beta alpha beta parse view user cache data
data view model index test index index model alpha
test alpha data model value render token render
config build value beta index
model cache test config alpha config model view
config value view build alpha config beta data parse
alpha token config index view view alpha
alpha user cache build config build alpha
test config cache
index value value
alpha render cache token

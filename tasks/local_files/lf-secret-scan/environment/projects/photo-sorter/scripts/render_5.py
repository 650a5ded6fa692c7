alpha view model view build alpha
token test view value value render build
alpha model model index beta token
build token cache user index
data data view test render data
cache render cache data
index beta build beta config render data parse
build parse test user parse user data
test build user parse beta model data
index build user view build token cache
render test value view value parse cache render data
config index parse test index beta user beta index
beta render alpha config
alpha beta alpha user build beta alpha token
render user beta alpha build
alpha build view index beta token
data cache alpha model config test
data view index beta data
view user view alpha value beta token user
beta cache token view config user
token alpha view test view value cache
value beta beta data cache data value model view
value token config view view
index render config alpha value token value alpha
token parse token beta user
build value build index

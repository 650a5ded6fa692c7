cache build parse model model value alpha model view
beta beta index parse index
user value view
token test build user index
value token beta cache token cache
view render index
parse data beta test test user
data alpha view render render token model
view config build user data data
config view parse view model user alpha
test alpha index
index parse alpha index render cache
config index value config view
build render view value
view index build cache index build value cache
index view alpha
model token alpha
beta cache cache render render
config render index user cache view token
model alpha alpha render alpha
parse index build view index
token value alpha token cache
build test view test config parse token
cache cache parse parse beta user view test
value index data index build user data
cache view render token build parse view
parse data parse view model token
render config user

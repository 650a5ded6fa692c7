index beta token config config build
beta alpha parse alpha
test index parse alpha view test user index
model value data index value alpha alpha
user index index user user token index index
view model cache index render index build
test config parse cache cache
render index render render value cache alpha value
build model index test data
value user view value
cache alpha view test user token
index beta cache model parse test render beta index
index parse config build value view
index data beta render render alpha token
view build index build beta build
test model cache data test beta value view user
index data data index parse data
token test value alpha index model cache

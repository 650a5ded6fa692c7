alpha alpha value value test token index
index test cache value test beta beta
value render user user render cache
alpha parse parse build token beta
test token test index
token token build render
user render model render data
render build data
token parse user config data
build view beta parse value
token alpha view user alpha value alpha cache
model alpha parse render data token beta user
parse alpha build cache render beta
token view alpha data config view render
token token index build
parse user parse user beta parse index data token
render parse build
render data alpha
index token model user
view config cache user config build token
alpha test index beta token value index render config
render index model cache build
build render render parse render
user user beta config data build value
beta beta config test parse config render index model
index index index
view parse parse view render
test model cache data user

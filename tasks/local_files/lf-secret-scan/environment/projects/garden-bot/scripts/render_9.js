cache build model beta data render parse
model parse cache render parse render index index
config index beta user index
user build token value
data parse view config beta alpha test
test model token
test index data user render parse config config token
data test beta value view
build token render model alpha user parse view data
view user cache render
view config parse token render beta config view
cache config user parse value render
render model render
config view token render build cache
test config alpha view user token cache
view parse build
user user alpha index config cache test
data render data cache
config render parse test render value data
model parse model test
model render test test config beta data token
build value data cache parse index view view
alpha alpha config
parse index cache test index parse cache
value index cache model alpha alpha parse index view
index build test beta alpha cache view data data
user build index user alpha test config beta build
parse render test
index parse user config build view data value
render token token value build data token
user beta view alpha user token token render

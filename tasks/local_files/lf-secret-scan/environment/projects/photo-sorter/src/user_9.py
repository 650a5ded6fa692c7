user build model render render model render parse build
render data beta beta
value alpha cache model user token model render
view render parse alpha user
config render config
token alpha parse value beta render user config index
view view value config view config parse user
config token model
value token parse render beta
view model model value
data build config alpha
index parse beta alpha
test model cache index
index beta value
view model cache model value config alpha
user data cache model alpha build
config test token
alpha data view model config view index parse
view config data build view render index data beta
model beta beta value cache
cache data data build test
view view alpha token index view alpha token view
build index cache parse
value test data token user parse beta
test alpha build value test parse token render test
beta view render cache render value test value alpha
parse render view view
test beta build config token index cache
view view model config index parse
beta user parse model
render config config render index
value data render user
beta value token index
data config view parse alpha beta data parse

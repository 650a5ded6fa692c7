token user test
test config config test build
view model user beta user view token render parse
data test alpha value token user parse view
alpha parse cache user model alpha user config build
alpha alpha model build test
render token value test data value value user
user model data view alpha
build render model parse test
view parse user user cache
test test parse render user beta alpha parse
config alpha token alpha index
index view alpha beta view alpha build view user
render token data parse model beta user
model parse config
value cache index
data build beta view parse data
index alpha token config render alpha index cache
cache cache test user parse cache parse build value
beta user parse cache parse user
data parse cache build config token cache beta
model view parse cache data build view
beta cache beta token data config model
test index user parse
render user build cache beta user beta build data
cache cache build value beta test
user token beta
parse test cache parse build data parse
user value model view
alpha render render model render test
cache test config beta alpha config alpha
build token token user

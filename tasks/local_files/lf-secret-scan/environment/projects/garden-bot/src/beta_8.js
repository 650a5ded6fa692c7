view build parse user cache model index
data user view parse build alpha test token test
alpha model test build index config build render
render render parse
build alpha parse render alpha
token user token alpha view
token alpha parse index alpha data parse config
value index view user model
data beta token render token beta model test
value model token beta alpha
value user token alpha config alpha build parse index
model build view config beta parse alpha user
render render config parse
cache cache test view test
index data model view render token
config cache token
value build value beta user test token cache index
parse token render value config user view model
data parse value view beta cache user
test render config render
index index alpha
parse data user test build view model
parse build user render view parse
beta model beta parse data token
model alpha cache parse config test alpha data
build config build test index index token
alpha config test
config alpha config render user build render index
config token value model test token token value
value cache alpha test cache test beta
token value user model config cache token index build
token build render value beta
alpha data parse
config model user user build
config view build config test token build cache token

token beta test value render
view index user test user view alpha user
user model token test view
cache value view test
model model config token test
model beta build cache config alpha value alpha
model index build user beta config render view
model config beta build model alpha model parse
user user index user token
data test data parse user token config
user view token token build
data test alpha build build parse cache model data
value model token user index data data beta build

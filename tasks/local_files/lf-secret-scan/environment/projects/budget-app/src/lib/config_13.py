view parse value value cache test value
model value config model token test cache test
alpha test user test
parse build token index value data config
alpha token user data
token cache parse cache test
model parse config cache
value beta cache index data view value test model
index index cache value
parse render token index
index view test
model view value
token config config cache config cache
alpha user parse beta value index data user cache
data view test alpha beta parse
render user index view model parse
user config index value model
model test parse cache view test alpha data
view token alpha index view render cache alpha parse
config token alpha test alpha value
view test user alpha test model
index user config
view config value data test view value
user parse render alpha
value token model model index beta
index build value config data build
beta view user build value cache
beta cache cache parse data
view view parse data beta beta
config render view beta view

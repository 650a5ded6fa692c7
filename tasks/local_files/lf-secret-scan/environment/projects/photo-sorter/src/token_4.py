token cache cache view user data data data test
beta config index build alpha config cache
config data test alpha view value value user
beta render config user user config alpha
config user build cache parse user render config
beta test index cache config cache token user index
data view config token token config beta value
alpha test model beta
test parse data index beta
view value beta render value parse parse index user
config cache model index config
beta beta value test alpha beta
model render render cache model alpha
index parse data render index index build user render

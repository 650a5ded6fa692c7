parse render render model user index token value user
token value data model beta model beta user
config model parse value index cache config data build
index test data index test
render config model index beta test model token beta
beta test parse data view config
token alpha parse model render test
config token build
index beta index alpha config alpha cache alpha
parse token view model model
index data value
test config config config model
config alpha value model config index view data
model value alpha model alpha user alpha user

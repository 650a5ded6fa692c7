render value model alpha index user model
model render token parse alpha build cache build data
test data build beta
config data parse user value parse
view parse index test cache model
build model view render data build value data cache
user token view data parse test view cache build
